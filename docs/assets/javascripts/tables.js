// Material wraps each table in a box that scrolls sideways when the table is wider than the
// page. A keyboard can scroll that box only once it can take focus (WCAG 2.1.1; axe's rule
// scrollable-region-focusable), as Material's code blocks can.
document$.subscribe(() => {
  for (const box of document.querySelectorAll(".md-typeset__scrollwrap")) {
    box.tabIndex = 0;
  }
});
