// The language selector keeps the reader's place. The two languages' pages share their
// heading anchors, so the twin page is opened at the section being read: the anchor in the
// address if its element is on screen, else the last heading above the top of the window
// (none at the top of the page). An anchor the twin lacks leaves the reader at its top.
// Material's own handler would open the twin at its top: this one runs first (capture) and
// stops the click there.
document.addEventListener(
  "click",
  (event) => {
    const link = event.target.closest(".md-select a[hreflang]");
    if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
    const anchor = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    const box = anchor && anchor.getBoundingClientRect();
    const headings = document.querySelectorAll("article :is(h2, h3, h4)[id]");
    const read =
      box && box.bottom > 0 && box.top < innerHeight
        ? anchor
        : [...headings].filter((h) => h.getBoundingClientRect().top < 100).pop();
    link.href = link.href.split("#")[0] + (read ? `#${read.id}` : "");
    event.preventDefault();
    event.stopPropagation();
    location.assign(link.href);
  },
  true,
);
