// Chart.js is loaded by the pages that draw charts as a classic script (/assets/chart.js), which sets window.Chart;
// the bundle takes only its types.
import type { Chart } from 'chart.js';

declare global {
  interface Window {
    Chart?: typeof Chart;
  }
}

export type { Chart };
