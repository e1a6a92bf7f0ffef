// The CSS object model linkedom builds for a <style> element's `.sheet`. The web layer's HTML
// conversion never reads `.sheet` (Readability and Turndown look at elements, not style sheets),
// and the parser is 200 KB of the bundle, so esbuild.mjs puts this in its place.
module.exports = {
  parse() {
    throw new Error('CSS style sheets are not parsed in this build (scripts/stubs/cssomnom-parse.cjs)');
  },
};
