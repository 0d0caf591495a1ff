// docs/errors.md is generated from the catalogue; this fails when someone changed one without
// the other. Fix: `npm run docs:errors`.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ERRORS } from '../../src/errors.js';
import { ERRORS_DOC, renderErrorsDoc } from '../../scripts/docs-errors.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('docs/errors.md', () => {
  it('is what `npm run docs:errors` writes from the catalogue', () => {
    const onDisk = readFileSync(ERRORS_DOC, 'utf8');
    expect(onDisk === renderErrorsDoc(), 'docs/errors.md is out of date: run `npm run docs:errors`').toBe(true);
  });

  it('has one row per code, with its status and problem code', () => {
    const doc = renderErrorsDoc();
    expect(doc.match(/^\| `[a-z0-9_]+` \|/gm)).toHaveLength(Object.keys(ERRORS).length);
    expect(doc).toContain('| `user_not_found` | 404 |  | ');
    expect(doc).toContain('| `duplicate_message` |  | `e.p.msg.duplicate` | ');
    expect(doc).toContain('| `forbidden` | 403 | `e.p.trust.forbidden` | ');
  });

  it('is linked from the README and from docs/service.md', () => {
    expect(readFileSync(`${ROOT}README.md`, 'utf8')).toContain('(docs/errors.md)');
    expect(readFileSync(`${ROOT}docs/service.md`, 'utf8')).toContain('(errors.md)');
  });
});
