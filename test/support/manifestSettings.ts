// package.json's settings as the tests read them: all categories' declarations in one map.
import * as fs from 'node:fs';
import * as path from 'node:path';

const PACKAGE_JSON = path.join(__dirname, '..', '..', 'package.json');

/** A setting's declaration, as far as the tests look at it. */
export interface DeclaredSetting {
  scope?: string;
  type?: string | string[];
  enum?: string[];
  items?: { type: string };
  minimum?: number;
  maximum?: number;
  pattern?: string;
  default?: unknown;
  markdownDescription?: string;
}

/** Every `evergreen.*` setting package.json declares, by full name, from every category (Model, Context, …). */
export function declaredSettings(): Record<string, DeclaredSetting> {
  const manifest = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as { contributes: { configuration: Array<{ properties: Record<string, DeclaredSetting> }> } };
  if (!Array.isArray(manifest.contributes.configuration)) throw new Error('package.json: contributes.configuration is not a list of categories');
  return Object.assign({}, ...manifest.contributes.configuration.map((category) => category.properties)) as Record<string, DeclaredSetting>;
}
