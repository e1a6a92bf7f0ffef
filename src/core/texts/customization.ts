/** What the core says about command, mode and skill files, and memory, as kinds with data (src/core/texts/userText.ts); src/frontends/words/customization.ts words them. */
import type { NestedText, NoData } from './value';

/**
 * Kinds for the files users bring (commands, modes, skills: src/core/definitions and the loaders
 * over it), a mode's model, memory that cannot be listed, and a slash command's expansion. Paths are
 * shown as the loaders show them (workspace-relative, `~/…`); an error's own text (the OS's, the
 * YAML parser's, a server's) is data as it came. A `problem` or `why` is a nested kind: the part of
 * a sentence that says what is wrong with a file or a field.
 */
export interface CustomizationTexts {
  // Folders and files (definitions/files.ts, load.ts)
  'customization.notAFolder': { folder: string };
  'customization.notRead': { path: string; error: string };
  'customization.folderNotListed': { folder: string; error: string };
  'customization.tooManyFiles': { folder: string; limit: number };
  'customization.tooDeep': { folder: string; depth: number };
  'customization.notOpened': { file: string; error: string };
  'customization.namedPipe': { file: string };
  'customization.folderNotFile': { file: string };
  'customization.specialFile': { file: string };
  'customization.binary': { file: string };
  'customization.notUtf8': { file: string };
  'customization.unreadable': { file: string; error: string };
  'customization.untrustedCommands': { folders: string };
  'customization.untrustedModes': { folders: string };
  'customization.untrustedSkills': { folders: string };
  'customization.commandTooLarge': { file: string; kilobytes: number };
  'customization.modeTooLarge': { file: string; kilobytes: number };
  'customization.fileNotLoaded': { file: string; problem: NestedText };
  // What is wrong with a frontmatter (definitions/frontmatter.ts): the `problem` of fileNotLoaded and skillNotLoaded
  'customization.frontmatterNotClosed': NoData;
  /** `error`: the YAML parser's own first line. */
  'customization.frontmatterNotYaml': { error: string };
  'customization.frontmatterList': NoData;
  'customization.frontmatterValue': NoData;
  'customization.frontmatterAliases': { limit: number };
  // What is wrong with a field: the `problem` of fieldIgnored and skillBadDescription
  'customization.fieldNotText': { field: string; got: NestedText };
  'customization.fieldNotNames': { field: string; got: NestedText };
  'customization.fieldNotList': { field: string; got: NestedText };
  'customization.fieldNotModels': { field: string };
  'customization.modeBaseInvalid': { got: string };
  // What a field held instead: the `got` above
  'customization.gotNull': NoData;
  'customization.gotList': NoData;
  'customization.gotMapping': NoData;
  'customization.gotNumber': NoData;
  'customization.gotBoolean': NoData;
  'customization.gotText': NoData;
  'customization.fieldIgnored': { file: string; problem: NestedText };
  // One name, several files (definitions/precedence.ts); `why` is one of the three after them
  'customization.reservedCommand': { file: string; name: string };
  'customization.reservedMode': { file: string; name: string };
  'customization.commandHidden': { file: string; name: string; why: NestedText };
  'customization.modeHidden': { file: string; name: string; why: NestedText };
  'customization.skillHidden': { file: string; name: string; why: NestedText };
  'customization.comesFirst': { winner: string };
  'customization.yoursFirst': { winner: string };
  'customization.readFirst': { winner: string; winnerFolder: string; folder: string };
  // Tool lists (definitions/toolNames.ts); `names` and `entries` are the entries as written, quoted
  'customization.unknownTools': { file: string; field: string; names: string; count: number; tools: string };
  'customization.grantIgnored': { file: string; field: string; entries: string };
  // Skills (skills/skills.ts)
  'customization.skillFolderNotLoaded': { folder: string; error: string };
  'customization.skillsNotListed': { folder: string; error: string };
  'customization.skillNameMismatch': { file: string; name: string; folderName: string; listed: string };
  'customization.skillNameInvalid': { file: string; name: string; problem: NestedText };
  'customization.skillNameInvalidFolderUsed': { file: string; name: string; problem: NestedText; folderName: string };
  'customization.skillNoName': { file: string };
  'customization.skillNoNameFolderUsed': { file: string; folderName: string };
  'customization.skillNoValidName': { file: string; folderName: string; limit: number };
  'customization.skillNameEmpty': NoData;
  'customization.skillNameTooLong': { length: number; limit: number };
  'customization.skillNameCapitals': NoData;
  'customization.skillNameCharacters': NoData;
  'customization.skillNameHyphenEnds': NoData;
  'customization.skillNameDoubleHyphen': NoData;
  'customization.skillNoFile': { folder: string };
  'customization.skillNotLoaded': { file: string; problem: NestedText };
  'customization.skillNoFrontmatter': NoData;
  'customization.skillNoDescription': { file: string };
  'customization.skillBadDescription': { file: string; problem: NestedText };
  'customization.skillDescriptionLong': { file: string; length: number; limit: number };
  'customization.skillBodyLong': { file: string; limit: number };
  'customization.skillGrantIgnored': { file: string };
  // Command and mode files (commands/fileCommands.ts, modes/modes.ts)
  'customization.commandNameInvalid': { file: string; name: string };
  'customization.commandFieldsUnsupported': { file: string; fields: string };
  'customization.commandShellLines': { file: string; lines: string };
  'customization.modeNameInvalid': { file: string; name: string };
  'customization.modeFieldsUnsupported': { file: string; fields: string };
  // A session's mode (agent/modeStart.ts); `error` is the model's error as it came
  'customization.modeGone': { mode: string };
  /** `modes`: the modes there are, joined with ", " as names are listed. */
  'customization.unknownMode': { mode: string; modes: string };
  'customization.modeModelFailed': { mode: string; model: string; error: string; running: string };
  /** `models`: the names asked for, "a or b". */
  'customization.modeModelNotServed': { mode: string; models: string; provider: string; running: string };
  // Memory (agent/customization.ts)
  'customization.memoryNotListed': { error: string };
  // A typed slash command (commands/slash.ts, references.ts); `near` and `placeholders` are joined names
  'customization.commandAmbiguous': { name: string; choices: string; example: string };
  'customization.unknownCommand': { name: string };
  'customization.unknownCommandNear': { name: string; near: string };
  'customization.placeholdersUnfilled': { command: string; placeholders: string; count: number };
  'customization.placeholdersUnfilledHint': { command: string; placeholders: string; count: number; hint: string };
  'customization.inputsUnfilled': { command: string; placeholders: string; count: number };
  'customization.inputsUnfilledHint': { command: string; placeholders: string; count: number; hint: string };
  'customization.referenceBadRange': { reference: string };
  'customization.referenceRefused': { reference: string; error: string };
  'customization.referenceMissing': { reference: string };
  'customization.referenceFolderRange': { reference: string };
  // A built-in command's arguments (commands/builtin.ts); `problem` is thinking's own words for a setting
  'customization.commandTakesNothing': { name: string };
  'customization.modelTakesOneId': { got: string };
  'customization.thinkingSettingInvalid': { problem: string };
}

