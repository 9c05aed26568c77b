// The uptime bars: one tab stop per bar, arrow keys (and Home/End) move between its days (roving tabindex).
for (const bar of document.querySelectorAll('ol.uptime')) {
  bar.addEventListener('keydown', (event) => {
    const { key } = event as KeyboardEvent;
    const days = [...bar.children] as HTMLElement[];
    const current = days.indexOf(document.activeElement as HTMLElement);
    if (current === -1) return;
    const moves: Record<string, number> = {
      ArrowLeft: current - 1,
      ArrowRight: current + 1,
      Home: 0,
      End: days.length - 1,
    };
    if (!(key in moves)) return;
    event.preventDefault();
    const next = days[Math.max(0, Math.min(days.length - 1, moves[key]))];
    days[current].tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  });
}
