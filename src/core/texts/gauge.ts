/** What the core says about the token gauge: its reading and its hover, as kinds with data (src/core/texts/userText.ts); src/frontends/words/gauge.ts words them. */
import type { NestedText, NoData } from './value';

/** A line of the hover's breakdown: `part` names the category (one of the `gauge.part.*` kinds). */
type PartLine = {
  part: NestedText;
  /** A compact token count ("20k"), as the gauge's label shows counts. */
  tokens: string;
  /** Share of the window, in percent. */
  percent: number;
};

export interface GaugeTexts {
  /** "62%": the used share of the window. */
  'gauge.percent': { percent: number };
  /** ">100%": more than the whole window is in use. */
  'gauge.percentOver': NoData;
  /** "62% · 124k / 200k": `shown` is a `gauge.percent*`, the counts compact. */
  'gauge.label': { shown: NestedText; used: string; window: string };
  /** "cache 80% · $0.42": `cost` is a `gauge.cost*`. */
  'gauge.secondary': { cachePercent: number; cost: NestedText };
  /** A cost every request of which had a price: `dollars` as formatCost reads it ("$0.42"). */
  'gauge.cost': { dollars: string };
  /** A cost no request of which had a known price. */
  'gauge.costUnknown': NoData;
  /** A cost some requests of which had no known price. */
  'gauge.costPartlyUnknown': { dollars: string };
  /** A cost and the share of it the session's subagents spent (both `gauge.cost*`). */
  'gauge.costWithSubagents': { cost: NestedText; subagents: NestedText };
  /** A cost and the server-side web searches it includes (billed per search). */
  'gauge.costWithSearches': { cost: NestedText; count: number };
  /** The hover's first line: tokens in use of the window. */
  'gauge.used': { used: number; window: number; shown: NestedText };
  /** The same when the count includes an estimate of what was appended since the last response. */
  'gauge.usedEstimated': { used: number; window: number; shown: NestedText };
  'gauge.reserve': { reserve: number; free: number };
  'gauge.threshold': { threshold: number; percent: number };
  'gauge.levelOver': NoData;
  'gauge.levelPast': NoData;
  'gauge.levelNear': NoData;
  'gauge.partLine': PartLine;
  /** The hover's spending line: `cost` is a `gauge.cost*`, with its subagents' share and searches. */
  'gauge.spending': { cachePercent: number; cost: NestedText };
  /** The next step beside an unknown price: `setting` is where a price is set. */
  'gauge.priceUnknownHint': { count: number; setting: NestedText };
  // The breakdown's categories (context/gauge.ts BREAKDOWN_CATEGORIES), by the names every front end shows.
  'gauge.part.system': NoData;
  'gauge.part.instructions': NoData;
  'gauge.part.skills': NoData;
  'gauge.part.memory': NoData;
  'gauge.part.tools': NoData;
  'gauge.part.mcpTools': NoData;
  'gauge.part.messages': NoData;
  'gauge.part.thinking': NoData;
  'gauge.part.toolResults': NoData;
  'gauge.part.summaries': NoData;
  'gauge.part.persistedPreviews': NoData;
  'gauge.part.subagents': NoData;
}
