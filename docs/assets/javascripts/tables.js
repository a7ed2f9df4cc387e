// Material wraps each table in a box that scrolls sideways when the table is wider than the
// page. A keyboard can scroll that box only once it can take focus (WCAG 2.1.1; axe's rule
// scrollable-region-focusable), as Material's code blocks can. The classes of that box, and
// of a code block, say past which edge its content goes on, for the shadows extra.css draws
// there: on a phone a code block's long lines (printed figures among them) run out of sight.
const markEdges = box => {
  box.classList.toggle("more-left", box.scrollLeft > 0);
  box.classList.toggle("more-right", box.scrollLeft + box.clientWidth < box.scrollWidth - 1);
};
// A box's size changes with the window, and from nothing when a hidden tab opens.
const resized = new ResizeObserver(entries => entries.forEach(entry => markEdges(entry.target)));

document$.subscribe(() => {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap, .md-typeset pre > code")) {
    if (box.tagName !== "CODE") box.tabIndex = 0;
    markEdges(box);
    box.addEventListener("scroll", () => markEdges(box), { passive: true });
    resized.observe(box);
  }
});

// A comparison table (in a div of class "comparison") is stacked on a phone, one row under
// another, its header hidden: each cell but the first gets a copy of its column's header
// (formulas too), which extra.css shows only there.
document$.subscribe(() => {
  for (const table of document.querySelectorAll(".comparison table")) {
    const headers = [...table.querySelectorAll("thead th")];
    for (const row of table.querySelectorAll("tbody tr")) {
      [...row.cells].slice(1).forEach((cell, i) => {
        const label = document.createElement("span");
        label.className = "column-label";
        label.append(...[...headers[i + 1].childNodes].map(node => node.cloneNode(true)), ": ");
        cell.prepend(label);
      });
    }
  }
});
