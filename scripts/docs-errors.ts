// Writes docs/errors.md from the error catalogue (src/errors/catalogue.ts): `npm run docs:errors`.
// test/errors/docs.test.ts fails when the file is not what this script would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERRORS, type ErrorEntry } from '../src/errors.js';

export const ERRORS_DOC = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderErrorsDoc(): string {
  const rows = (Object.entries(ERRORS) as [string, ErrorEntry][])
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, e]) => {
      const meaning = e.reserved ? `${e.meaning} Reserved: ${e.reserved}` : e.meaning;
      return `| \`${code}\` | ${e.status ?? ''} | ${e.problem ? `\`${e.problem}\`` : ''} | ${cell(meaning)} |`;
    });
  return [
    '# Error codes',
    '',
    '<!-- Generated from src/errors/catalogue.ts by `npm run docs:errors`: edit the catalogue, not this file. -->',
    '',
    'Every error idsync raises carries one of these stable codes, wherever it surfaces:',
    '',
    '- **REST API** (and the service\'s POST /didcomm): an RFC 9457 problem `{type, title, status, detail, instance, code}`',
    '  with the **HTTP status** below; `GET /problems/<code>` describes it (docs/service.md "Errors").',
    '  The mediator, a wallet\'s DIDComm endpoint and its control API, and the fault proxy have no problem',
    '  types of their own: `{type: "about:blank", title, status, detail, code}`, the title being the',
    '  status phrase (RFC 9457 §4.2.1) and `detail` what went wrong.',
    '  A code without a status never reaches an HTTP response: if one escaped, it would be answered',
    '  as 500 `internal_error` without detail.',
    '- **DIDComm**: a report-problem 2.0 message whose `code` is the **problem code** below (DIDComm v2',
    '  §Problem Codes; docs/protocols.md). A code without one reaches a peer as `e.p.me` (internal error).',
    '- **Library**: `IdsyncError.code`, typed as the union of these codes (`ErrorCode`); `httpStatusOf(code)`',
    '  and `problemCodeOf(code)` look the other two columns up.',
    '- **CLI**: one line on stderr, `idsync: <code>: <message>`; exit 2 for usage errors, 3 for a conformance run that judged nothing (`conformance_not_judged`), 1 otherwise.',
    '',
    `${rows.length} codes.`,
    '',
    '| code | HTTP status | problem code | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ERRORS_DOC, renderErrorsDoc());
  console.log(`wrote ${ERRORS_DOC}`);
}
