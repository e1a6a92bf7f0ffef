/**
 * `/init`: the prompt that has the agent explore the workspace and propose an `AGENTS.md`. Nothing
 * here writes: the model writes the file with write_file or edit_file, so the user sees the diff and
 * approves it like any other write (the approval settings decide when it asks).
 */

/** The file /init proposes (the first of the root instruction files Evergreen reads). */
export const INIT_FILE = 'AGENTS.md';

export const INIT_PROMPT = [
  `Explore this workspace and write an ${INIT_FILE} at its root for coding agents (you, in later chats, and other tools) that start here knowing nothing.`,
  '',
  'Find out, using list_files, grep_search and read_file (read the build files, the README, the CI configuration and a few representative sources; do not run commands to find out):',
  '- what the project is and how it is laid out: the top-level folders and what each holds;',
  '- how to install, build, lint and test, as exact commands, and how to run a single test;',
  '- the conventions the code follows that a newcomer would get wrong (naming, error handling, imports, formatting, where new code goes);',
  '- anything dangerous or surprising: generated files not to edit, slow or networked tests, secrets, migration steps.',
  '',
  `If ${INIT_FILE} (or CLAUDE.md, or .github/copilot-instructions.md) already exists, read it first and improve it with edit_file rather than starting over; keep what is still true.`,
  `Write ${INIT_FILE} with write_file (the user reviews the diff and approves it). Keep it short, at most about 150 lines: facts and commands, not advice any project would get. Do not invent commands you did not find.`,
  `Then say in two or three sentences what you wrote and anything you could not find out.`,
].join('\n');
