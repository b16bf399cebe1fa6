import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type DocumentNode } from 'graphql';

/**
 * The accounts SDL is a source file (`src/graphql/accounts.graphql`), read at run time rather
 * than copied into `dist/`. We find it from the package root, located by walking up from this
 * module to the nearest package.json: that works the same from `src/graphql/` (jest, swc) and
 * `dist/graphql/` (after `tsc -b`), and does not depend on how deep the compiled file sits. A
 * deployment ships the package folder with `src/graphql/*.graphql` in it (the Dockerfile copies it).
 */
export const ACCOUNTS_SDL_PATH = path.join(packageRoot(__dirname), 'src', 'graphql', 'accounts.graphql');

export function loadAccountsTypeDefs(): DocumentNode {
  return parse(readFileSync(ACCOUNTS_SDL_PATH, 'utf8'));
}

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}
