import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The one script the console has: uPlot (a small, fast time-series chart, about 22 KB compressed)
 * and the few lines that draw the spend chart from the numbers its page carries in a data
 * attribute. Both are files of the console's own origin, so the Content-Security-Policy allows
 * `script-src 'self'` and nothing inline; every page works without them (the table under the chart
 * holds the same numbers).
 */
const require = createRequire(import.meta.url);
let library: { script: string; styles: string } | undefined;

export function chartLibrary(): { script: string; styles: string } {
  library ??= {
    script: readFileSync(require.resolve('uplot/dist/uPlot.iife.min.js'), 'utf8'),
    styles: readFileSync(require.resolve('uplot/dist/uPlot.min.css'), 'utf8'),
  };
  return library;
}

/** Draws `#spend-chart` from its `data-days` (day labels and costs) once uPlot has loaded. */
export const spendChartScript = `(() => {
  const element = document.getElementById('spend-chart');
  if (!element || typeof uPlot === 'undefined') return;
  const days = JSON.parse(element.dataset.days || '[]');
  const xs = days.map((day) => Date.parse(day.day + 'T12:00:00Z') / 1000);
  const costs = days.map((day) => day.cost);
  const width = Math.max(280, Math.min(element.clientWidth || 600, 900));
  new uPlot(
    {
      width,
      height: 240,
      series: [{}, { label: 'cost', stroke: '#2459c9', fill: '#2459c933', width: 2 }],
      axes: [{}, { size: 60 }],
    },
    [xs, costs],
    element,
  );
})();
`;
