// The MCP benchmark's data: tool `fetch_records_<n>` of table n answers `records(n, seed, bytes)`,
// text of exactly `bytes` ASCII characters, the same every time. The server (server.mjs) and the
// benchmark (bench/mcp.ts, which checks what reached disk) share this one definition.

export const TABLES = ['orders', 'invoices', 'customers', 'shipments', 'tickets', 'payments', 'products', 'audit_log', 'sessions', 'refunds'];
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];
const LINE = 100;

/** Exactly `bytes` characters: lines of 100 (newline included) naming the table, the seed and the line, with varying words. */
export function records(table, seed, bytes) {
  const lines = [];
  let state = (table * 7919 + seed * 104729) >>> 0 || 1;
  for (let line = 0; line * LINE < bytes; line++) {
    // xorshift32: cheap, deterministic variety so two outputs never share a hash.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const head = `${TABLES[table % TABLES.length]} ${table}.${seed} row ${line} ${WORDS[state % WORDS.length]} ${state.toString(36)} `;
    lines.push(head.padEnd(LINE - 1, '.').slice(0, LINE - 1) + '\n');
  }
  return lines.join('').slice(0, bytes);
}
