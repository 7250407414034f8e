/**
 * Small hand-written SVG plots: a scatter of points on log–log axes, and line series on log–log
 * axes. Plain SVG 1.1 with inline styles, readable on GitHub in light and dark themes.
 */

/** A point of a plot. */
export interface PlotPoint {
  readonly x: number;
  readonly y: number;
  /** An upper whisker on y (e.g. p90). */
  readonly yHigh?: number;
  readonly label?: string;
  /** Drawn as a ring: a point measured on a group that was not steady. */
  readonly hollow?: boolean;
}

/** A named series of points. */
export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly PlotPoint[];
  /** Join the points with a line. */
  readonly line?: boolean;
}

/** A straight reference line y = factor·x. */
export interface Guide {
  readonly factor: number;
  readonly label: string;
}

/** One panel. */
export interface Panel {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly series: readonly Series[];
  readonly guides?: readonly Guide[];
  /** Axis ranges; computed from the data when absent. */
  readonly xRange?: readonly [number, number];
  readonly yRange?: readonly [number, number];
  /** A line under the legend. */
  readonly footnote?: string;
}

/** Colours that read on white and on dark backgrounds. */
export const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const W = 460;
const PLOT_H = 340;
const M = { left: 64, right: 16, top: 34, bottom: 50 };
/** Height of one legend row, drawn under the panel. */
const LEGEND_ROW = 16;

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function fmt(v: number): string {
  if (v >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

/** Powers of ten and their 2× and 5× between lo and hi. */
function logTicks(lo: number, hi: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo * 0.999 && v <= hi * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

function range(values: number[]): [number, number] {
  const good = values.filter((v) => Number.isFinite(v) && v > 0);
  if (good.length === 0) return [1, 10];
  const lo = 10 ** Math.floor(Math.log10(Math.min(...good)));
  const hiRaw = Math.max(...good);
  const e = Math.floor(Math.log10(hiRaw));
  const hi = [1, 2, 5, 10].map((m) => m * 10 ** e).find((v) => v >= hiRaw) ?? 10 ** (e + 1);
  return [lo, hi];
}

function panelSvg(panel: Panel, dx: number): string {
  const pts = panel.series.flatMap((s) => s.points);
  const [x0, x1] = panel.xRange ?? range(pts.map((p) => p.x));
  const [y0, y1] = panel.yRange ?? range(pts.flatMap((p) => [p.y, p.yHigh ?? p.y]));
  const pw = W - M.left - M.right;
  const ph = PLOT_H - M.top - M.bottom;
  const sx = (x: number): number => dx + M.left + ((Math.log10(x) - Math.log10(x0)) / (Math.log10(x1) - Math.log10(x0))) * pw;
  const sy = (y: number): number => M.top + ph - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * ph;
  const out: string[] = [];
  out.push(`<text x="${dx + W / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(panel.title)}</text>`);
  out.push(`<rect x="${dx + M.left}" y="${M.top}" width="${pw}" height="${ph}" fill="none" stroke="#888"/>`);
  for (const t of logTicks(x0, x1)) {
    out.push(`<line x1="${sx(t)}" y1="${M.top}" x2="${sx(t)}" y2="${M.top + ph}" stroke="#8884"/>`);
    out.push(`<text x="${sx(t)}" y="${M.top + ph + 16}" text-anchor="middle" font-size="11">${fmt(t)}</text>`);
  }
  for (const t of logTicks(y0, y1)) {
    out.push(`<line x1="${dx + M.left}" y1="${sy(t)}" x2="${dx + M.left + pw}" y2="${sy(t)}" stroke="#8884"/>`);
    out.push(`<text x="${dx + M.left - 6}" y="${sy(t) + 4}" text-anchor="end" font-size="11">${fmt(t)}</text>`);
  }
  out.push(`<text x="${dx + M.left + pw / 2}" y="${PLOT_H - 12}" text-anchor="middle" font-size="12">${esc(panel.xLabel)}</text>`);
  out.push(`<text transform="translate(${dx + 16} ${M.top + ph / 2}) rotate(-90)" text-anchor="middle" font-size="12">${esc(panel.yLabel)}</text>`);
  for (const g of panel.guides ?? []) {
    // y = f·x clipped to the panel.
    const a = Math.max(x0, y0 / g.factor);
    const b = Math.min(x1, y1 / g.factor);
    if (a >= b) continue;
    out.push(`<line x1="${sx(a)}" y1="${sy(a * g.factor)}" x2="${sx(b)}" y2="${sy(b * g.factor)}" stroke="#888" stroke-dasharray="4 4"/>`);
    // Labelled near the top, at the line's height y1 × 0.6: ratio 1 to the right of its line, the others to the left.
    const ly = y1 * 0.6;
    const lx = ly / g.factor;
    if (lx > x0 && lx < x1) {
      const right = g.factor === 1;
      out.push(`<text x="${sx(lx) + (right ? 5 : -5)}" y="${sy(ly)}" text-anchor="${right ? 'start' : 'end'}" font-size="11" fill="#888">${esc(g.label)}</text>`);
    }
  }
  panel.series.forEach((s, index) => {
    const good = s.points.filter((p) => p.x > 0 && p.y > 0 && Number.isFinite(p.x) && Number.isFinite(p.y));
    if (s.line && good.length > 1) {
      out.push(`<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${good.map((p) => `${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ')}"/>`);
    }
    for (const p of good) {
      if (p.yHigh !== undefined && p.yHigh > p.y) out.push(`<line x1="${sx(p.x)}" y1="${sy(p.y)}" x2="${sx(p.x)}" y2="${sy(p.yHigh)}" stroke="${s.color}" stroke-width="2"/>`);
      const fill = p.hollow ? 'fill="#fff" stroke-width="2" stroke' : 'fill';
      out.push(`<circle cx="${sx(p.x).toFixed(1)}" cy="${sy(p.y).toFixed(1)}" r="4.5" ${fill}="${s.color}"/>`);
      if (p.label) out.push(`<text x="${sx(p.x) + 7}" y="${sy(p.y) - 6}" font-size="11" fill="${s.color}">${esc(p.label)}</text>`);
    }
    const ly = PLOT_H + 4 + index * LEGEND_ROW;
    out.push(`<rect x="${dx + M.left}" y="${ly - 9}" width="10" height="10" fill="${s.color}"/>`);
    out.push(`<text x="${dx + M.left + 14}" y="${ly}" font-size="11">${esc(s.name)}</text>`);
  });
  if (panel.footnote) {
    out.push(`<text x="${dx + M.left}" y="${PLOT_H + 4 + panel.series.length * LEGEND_ROW}" font-size="11" fill="#666">${esc(panel.footnote)}</text>`);
  }
  return out.join('\n');
}

/** An SVG document of panels side by side, each on log–log axes. */
export function plot(panels: readonly Panel[]): string {
  const width = W * panels.length;
  const H = PLOT_H + 8 + LEGEND_ROW * Math.max(...panels.map((p) => p.series.length + (p.footnote ? 1 : 0)), 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${H}" viewBox="0 0 ${width} ${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...panels.map((p, i) => panelSvg(p, i * W)),
    '</svg>',
    '',
  ].join('\n');
}
