import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, type DocumentNode } from 'graphql';

/**
 * The orders SDL is a source file (`src/graphql/orders.graphql`, also named in gateway/subgraphs.json),
 * read at run time rather than copied into `dist/`. It is found from the package root (the nearest
 * package.json above this module), the same from `src/graphql/` under jest and `dist/graphql/`
 * after `tsc -b`, as accounts does.
 */
export const ORDERS_SDL_PATH = path.join(packageRoot(__dirname), 'src', 'graphql', 'orders.graphql');

export function loadOrdersTypeDefs(): DocumentNode {
  return parse(readFileSync(ORDERS_SDL_PATH, 'utf8'));
}

function packageRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}`);
  }
}
