/**
 * A response body as text, or a description when it is not text. The charset is found as a browser
 * finds it (a BOM, then the Content-Type header, then a `<meta>` in the first 1024 bytes of HTML,
 * WHATWG "encoding sniffing"), else UTF-8, else Windows-1252. The prescan is a few lines here rather
 * than a library: the libraries that do it bring an encoding table set larger than the rest of the
 * web layer, while Node's TextDecoder already knows the WHATWG encodings.
 */
import { decodeWindows1252 } from '../workspace/fileio';

export type BodyKind = 'html' | 'json' | 'text' | 'other';

export type DecodedBody =
  | { kind: 'html' | 'json' | 'text'; text: string; charset: string; mediaType: string }
  /** Not text (an image, a PDF, an archive, or bytes that are binary whatever the header says): described, never dumped. */
  | { kind: 'binary'; mediaType: string; why: string };

const BOMS: ReadonlyArray<[number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/** The media type and charset parameter of a Content-Type header. */
export function parseContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  const [type = '', ...params] = (header ?? '').split(';');
  const charset = params.map((param) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(param)?.[1]).find((value) => value !== undefined);
  return { mediaType: type.trim().toLowerCase(), charset: charset?.toLowerCase() };
}

export function bodyKind(mediaType: string): BodyKind {
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') return 'html';
  if (mediaType === 'application/json' || mediaType.endsWith('+json')) return 'json';
  if (mediaType.startsWith('text/') || mediaType === 'application/xml' || mediaType.endsWith('+xml') || mediaType === 'application/javascript' || mediaType === 'application/x-yaml' || mediaType === 'application/yaml') return 'text';
  // No Content-Type at all: look at the bytes.
  if (mediaType === '') return 'text';
  return 'other';
}

/** The charset a `<meta charset>` or `<meta http-equiv="Content-Type">` in the first 1024 bytes declares. */
export function metaCharset(bytes: Buffer): string | undefined {
  const head = bytes.subarray(0, 1024).toString('latin1');
  for (const tag of head.match(/<meta\b[^>]*>/gi) ?? []) {
    const direct = /\bcharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1]!.toLowerCase();
  }
  return undefined;
}

/** A TextDecoder for a label, or undefined when the label names no encoding Node knows. */
function decoderFor(label: string): { decoder: TextDecoder; name: string } | undefined {
  try {
    const decoder = new TextDecoder(label, { fatal: false });
    return { decoder, name: decoder.encoding };
  } catch {
    return undefined;
  }
}

/** NUL bytes or mostly control characters in the first 8 KB: binary, whatever the header claims. */
function looksBinary(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.length === 0) return false;
  let controls = 0;
  for (const byte of sample) {
    if (byte === 0) return true;
    if (byte < 0x09 || (byte > 0x0d && byte < 0x20)) controls++;
  }
  return controls / sample.length > 0.1;
}

function bomCharset(bytes: Buffer): string | undefined {
  return BOMS.find(([bom]) => bom.every((byte, i) => bytes[i] === byte))?.[1];
}

/** Decodes `bytes` by the rules in the header comment; binary content becomes a description. */
export function decodeBody(bytes: Buffer, contentType: string | undefined): DecodedBody {
  const { mediaType, charset: headerCharset } = parseContentType(contentType);
  const kind = bodyKind(mediaType);
  const bom = bomCharset(bytes);
  const shown = mediaType || 'no Content-Type';
  if (kind === 'other') return { kind: 'binary', mediaType: shown, why: `its type is ${shown}` };
  // UTF-16 has NUL bytes by nature; only a BOM or a header may say it is UTF-16.
  const utf16 = (bom ?? headerCharset ?? '').startsWith('utf-16');
  if (!utf16 && looksBinary(bytes)) return { kind: 'binary', mediaType: shown, why: `its bytes are binary although it says ${shown}` };
  const label = bom ?? headerCharset ?? (kind === 'html' ? metaCharset(bytes) : undefined);
  if (label !== undefined) {
    const found = decoderFor(label);
    if (found) {
      // Node's TextDecoder reads windows-1252 as latin1; the workspace's decoder has the real table.
      const text = found.name === 'windows-1252' ? decodeWindows1252(bytes) : found.decoder.decode(bytes);
      return { kind, text: text.replace(/^\uFEFF/, ''), charset: found.name, mediaType: shown };
    }
  }
  try {
    return { kind, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), charset: 'utf-8', mediaType: shown };
  } catch {
    return { kind, text: decodeWindows1252(bytes), charset: 'windows-1252', mediaType: shown };
  }
}
