// In a module of its own so that userText.ts, which the panel's bundle reaches through
// src/protocol.ts, carries no zod (the panel checks nothing: the host does).
import * as z from '../zod';
import { verbatim, type UserText } from './userText';

/**
 * A UserText as a transcript record holds it; a record written before the core said kinds holds
 * its English, read back as verbatim text. The kind is not checked against a table here (the core
 * has none): a front end words a kind it does not know as its kind and data.
 */
export const UserTextRecordSchema = z.union([z.string().transform((text) => verbatim(text)), z.object({ kind: z.string(), data: z.record(z.string(), z.unknown()) }).transform((value) => value as UserText)]);
