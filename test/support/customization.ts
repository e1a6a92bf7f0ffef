/**
 * Real folders for the customization tests (commands, modes, skills): a workspace and a home folder
 * copied from test/fixtures/customization (files shaped like the ones Claude Code and Copilot users
 * keep), in fresh temp folders each test may change.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempDirs } from './tempDirs';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'customization');

export interface CustomizationFolders {
  workspace: string;
  home: string;
  /** A folder outside both (for links that lead out). */
  outside: string;
  /** Writes a file below `root`, creating its folders. */
  write(root: string, file: string, content: string | Buffer): string;
  cleanup(): void;
}

export function customizationFolders(options: { fixtures?: boolean } = {}): CustomizationFolders {
  const dirs = tempDirs();
  const make = (name: string) => dirs.make(`evergreen-custom-${name}-`);
  const workspace = make('ws');
  const home = make('home');
  const outside = make('out');
  if (options.fixtures !== false) {
    fs.cpSync(path.join(FIXTURES, 'workspace'), workspace, { recursive: true });
    fs.cpSync(path.join(FIXTURES, 'home'), home, { recursive: true });
  }
  return {
    workspace,
    home,
    outside,
    write(root, file, content) {
      const target = path.join(root, file);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      fs.writeFileSync(target, content);
      return target;
    },
    cleanup: () => dirs.clean(),
  };
}
