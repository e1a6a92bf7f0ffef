/**
 * JSON to put inside a page's `<script type="application/json">` element: `<`, `>` and `&` escaped
 * (no `</script>` or `<!--` in any text can end the element or open a script), and U+2028/U+2029
 * too. JSON.parse reads it back unchanged. Pure, so the unit tier checks it.
 */
export function jsonForScriptElement(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
