// Chart.js is loaded by the pages that draw charts as a classic script (/assets/chart.js), which sets window.Chart;
// the bundle takes only its types.
import type { Chart } from 'chart.js';

declare global {
  interface Window {
    Chart?: typeof Chart;
  }
}

export type { Chart };

/** Whether a chart's values hold anything to draw: none, or only zeros and gaps, would draw an empty 0–1.0 axis. */
export const hasData = (values: Array<number | null | undefined>) => values.some((value) => Boolean(value));

/**
 * Shows "No data yet" in the canvas's box instead of an empty chart when `empty`, or the canvas again when not.
 * Returns whether to draw; the caller destroys the chart it drew before either way.
 */
export function chartOrNoData(canvas: HTMLCanvasElement, empty: boolean, message = 'No data yet'): boolean {
  const box = canvas.parentElement!;
  let note = box.querySelector<HTMLElement>('.no-data');
  if (!note) {
    note = document.createElement('p');
    note.className = 'no-data hint';
    box.append(note);
  }
  note.textContent = message;
  note.hidden = !empty;
  canvas.hidden = empty;
  box.classList.toggle('empty', empty);
  return !empty;
}
