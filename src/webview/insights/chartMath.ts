/**
 * The arithmetic of the insights charts, apart from the DOM so it is tested in node: axis ticks,
 * the requests each pixel column stands for, and the SVG path data. A chart draws at most one
 * shape per pixel column, so a 10,000-request session costs what a 1,000-request one does: each
 * column shows its most telling request (the fullest, for the context and tokens; the last, for
 * the running cost), and the data table behind the chart keeps every request.
 */

/** Up to about `count` round steps from 0 covering `max` (1, 2, 2.5 or 5 times a power of ten). */
export function niceTicks(max: number, count = 4): number[] {
  if (!(max > 0) || !Number.isFinite(max)) return [0];
  const rough = max / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough) ?? 10 * power;
  const ticks: number[] = [];
  for (let value = 0; value < max + step * 0.999; value += step) ticks.push(Number(value.toPrecision(12)));
  return ticks;
}

/**
 * The first request of each of `columns` columns (the last one ends at `count`); one column per
 * request when there are fewer requests than columns.
 */
export function columnStarts(count: number, columns: number): number[] {
  const used = Math.max(1, Math.min(count, Math.floor(columns)));
  const starts: number[] = [];
  for (let column = 0; column < used; column++) starts.push(Math.floor((column * count) / used));
  return starts;
}

/** In each column, the request with the largest `value` (ties: the first). */
export function peakOfColumns(starts: readonly number[], count: number, value: (index: number) => number): number[] {
  return starts.map((start, column) => {
    const end = starts[column + 1] ?? count;
    let best = start;
    for (let index = start + 1; index < end; index++) if (value(index) > value(best)) best = index;
    return best;
  });
}

/** In each column, its last request. */
export function lastOfColumns(starts: readonly number[], count: number): number[] {
  return starts.map((_, column) => (starts[column + 1] ?? count) - 1);
}

export interface Plot {
  /** Plot area in px, inside the SVG. */
  left: number;
  top: number;
  width: number;
  height: number;
  /** Requests on the x axis. */
  count: number;
  /** The y axis' top value. */
  yMax: number;
}

/** The x of request `index`'s centre. */
export function xOf(plot: Plot, index: number): number {
  return plot.left + ((index + 0.5) / Math.max(1, plot.count)) * plot.width;
}

export function yOf(plot: Plot, value: number): number {
  const share = plot.yMax > 0 ? Math.min(1, Math.max(0, value / plot.yMax)) : 0;
  return plot.top + plot.height - share * plot.height;
}

/** The request under the pointer at `x` px (clamped to the plot). */
export function indexAt(plot: Plot, x: number): number {
  const share = (x - plot.left) / Math.max(1, plot.width);
  return Math.min(plot.count - 1, Math.max(0, Math.floor(share * plot.count)));
}

const round = (value: number) => Math.round(value * 10) / 10;

/** A line through the points ("M x y L x y …"); empty for none. */
export function linePath(points: ReadonlyArray<readonly [number, number]>): string {
  return points.map(([x, y], index) => `${index === 0 ? 'M' : 'L'}${round(x)} ${round(y)}`).join('');
}

/** A step line: flat through each column, stepping between them (a threshold that changes). */
export function stepPath(points: ReadonlyArray<readonly [number, number]>, halfWidth: number): string {
  return points.map(([x, y], index) => `${index === 0 ? 'M' : 'L'}${round(x - halfWidth)} ${round(y)}H${round(x + halfWidth)}`).join('');
}

/** Columns as one path of rectangles: each `[x, yTop, yBottom]`, `width` px wide, centred on x. */
export function columnsPath(columns: ReadonlyArray<readonly [number, number, number]>, width: number): string {
  const w = round(Math.max(0.5, width));
  let path = '';
  for (const [x, top, bottom] of columns) {
    if (bottom - top < 0.05) continue;
    path += `M${round(x - width / 2)} ${round(bottom)}V${round(top)}h${w}V${round(bottom)}Z`;
  }
  return path;
}

/**
 * The index `step` requests away from `index` for a key the cursor understands, or undefined for
 * any other key. Page keys move a tenth of the session; Home and End go to its ends.
 */
export function cursorMove(key: string, index: number, count: number): number | undefined {
  const page = Math.max(1, Math.round(count / 10));
  const to = (target: number) => Math.min(count - 1, Math.max(0, target));
  switch (key) {
    case 'ArrowRight':
    case 'ArrowUp':
      return to(index + 1);
    case 'ArrowLeft':
    case 'ArrowDown':
      return to(index - 1);
    case 'PageUp':
      return to(index + page);
    case 'PageDown':
      return to(index - page);
    case 'Home':
      return 0;
    case 'End':
      return count - 1;
    default:
      return undefined;
  }
}

/** The request of the next (`forward`) or previous action from `index`, given the actions' requests in order; undefined at the end. */
export function nextActionRequest(actionRequests: readonly number[], index: number, forward: boolean): number | undefined {
  if (forward) return actionRequests.find((at) => at > index);
  for (let position = actionRequests.length - 1; position >= 0; position--) if (actionRequests[position]! < index) return actionRequests[position];
  return undefined;
}
