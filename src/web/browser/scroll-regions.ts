// A table wider than its box (on a phone) scrolls inside its .table-wrap. Keyboard users scroll such a box by focusing
// it, so a box that scrolls is a named, focusable region; one that fits is no extra tab stop. Boxes come and go as
// pages draw their tables, and start or stop scrolling as the window or the rows change: each is watched for both.
const watched = new WeakSet<Element>();

function update(box: HTMLElement) {
  if (box.scrollWidth > box.clientWidth) {
    box.tabIndex = 0;
    box.setAttribute('role', 'region');
    box.setAttribute('aria-label', box.querySelector('caption')?.textContent?.trim() || 'Table');
  } else {
    box.removeAttribute('tabindex');
    box.removeAttribute('role');
    box.removeAttribute('aria-label');
  }
}

const resized = new ResizeObserver((entries) => {
  for (const entry of entries) update(entry.target as HTMLElement);
});

function updateAll() {
  for (const box of document.querySelectorAll<HTMLElement>('.table-wrap')) {
    if (!watched.has(box)) {
      watched.add(box);
      resized.observe(box);
    }
    update(box);
  }
}

updateAll();
new MutationObserver(updateAll).observe(document.body, { childList: true, subtree: true });
