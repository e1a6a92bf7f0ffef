/**
 * zod for every trust boundary, with its English messages. zod's package declares no side effects,
 * so a bundler drops the locale its entry would set and every message reads "Invalid input": the
 * English locale is set here, once. Import it as a namespace, `import * as z from '../zod'`: a
 * bundler then keeps only what is used (zod's own `z` object would bring every locale, ~180 KB).
 */
import { config } from 'zod/v4';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/v4';
