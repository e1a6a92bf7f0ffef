/**
 * How a front end's table words one kind of UserText: an English template with `{name}`
 * placeholders, one per data key it shows, or two when the sentence changes with `count`; or one
 * per front end (`{ extension, cli }`) where the sentence names what the user does there (a
 * command and a setting in VS Code, a flag in a terminal).
 * `wordsFor<Kinds>()({...})` checks at compile time that a table words every kind and that each
 * placeholder names a key of that kind's data (a typo is a type error, not a "{nmae}" on screen).
 */
export type Template = string | { readonly one: string; readonly other: string };

/** The front ends that word things: the extension (VS Code) and the CLI. */
export type Voice = 'extension' | 'cli';

export type VoicedTemplate = Template | { readonly extension: Template; readonly cli: Template };

type PlaceholdersOf<S extends string> = S extends `${string}{${infer Name}}${infer Rest}` ? Name | PlaceholdersOf<Rest> : never;

type FitsString<S extends string, Data> = [PlaceholdersOf<S>] extends [Extract<keyof Data, string>] ? S : `${S} <- placeholder not in the data: {${Exclude<PlaceholdersOf<S>, keyof Data>}}`;

type FitsTemplate<T, Data> = T extends string ? FitsString<T, Data> : T extends { one: infer One extends string; other: infer Other extends string } ? { one: FitsString<One, Data>; other: FitsString<Other, Data> } : never;

type Fits<T, Data> = T extends { extension: infer Extension; cli: infer Cli } ? { extension: FitsTemplate<Extension, Data>; cli: FitsTemplate<Cli, Data> } : FitsTemplate<T, Data>;

export type WordsFor<Kinds> = { readonly [K in keyof Kinds]: VoicedTemplate };

/** A subsystem's table of templates, checked against its kinds' data. */
export function wordsFor<Kinds>() {
  return <const Table extends WordsFor<Kinds>>(table: Table & { [K in keyof Kinds]: Fits<Table[K], Kinds[K]> }): WordsFor<Kinds> => table;
}
