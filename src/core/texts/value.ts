/**
 * What a kind's data may hold (src/core/texts/userText.ts), in a module of its own: an area's kinds
 * may nest another UserText, and the union of every kind imports every area, so an area naming
 * the union would be an import cycle. A nested text is any kind with its data; the front end
 * words it by its kind like any other.
 */
export interface NestedText {
  readonly kind: string;
  readonly data: object;
}

/** A data value a front end can word on its own. */
export type UserTextValue = string | number | boolean | readonly string[] | NestedText | undefined;

/** The data of a kind that needs none: its template says everything. */
export type NoData = Record<string, never>;
