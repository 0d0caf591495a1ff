// Writes docs/rules.md from the rule catalogue (src/conformance/catalogue.ts): `npm run docs:rules`.
// test/conformance/catalogue.test.ts fails when the file is not what this script would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RULES, ruleAnchor, type CatalogueRule, type RuleLayer } from '../src/conformance/catalogue.js';

export const RULES_DOC = fileURLToPath(new URL('../docs/rules.md', import.meta.url));

const LAYERS: Array<[RuleLayer, string]> = [
  ['envelope', 'Envelope (JWE, JWS, sender authentication, from_prior)'],
  ['plaintext', 'Plaintext headers'],
  ['oob', 'Out-of-band invitation URLs'],
  ['protocol', 'Protocols (DIDComm\'s own, then issue-credential, present-proof, Data Pipe, Message Pickup)'],
  ['credential', 'Credentials'],
  ['transport', 'Transport'],
];

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
/** docs/rules.md sits in docs/: the project's own docs are linked relative to it. */
const href = (url: string) => (url.startsWith('docs/') ? url.slice('docs/'.length) : url);

function line(r: CatalogueRule): string {
  const source = `[${cell(`${r.spec} ${r.version}, ${r.section}`)}](${href(r.url)})`;
  const checks = `${cell(r.text)}${r.refuses ? ' *idsync refuses such a message.*' : ''}${r.tolerated ? ' *idsync takes such a message all the same.*' : ''}`;
  return `| <a id="${ruleAnchor(r.id)}"></a>\`${r.id}\` | ${r.severity} | ${r.keyword ?? '—'} | “${cell(r.quote)}” | ${source} | ${checks} |`;
}

export function renderRulesDoc(): string {
  const count = (s: string) => RULES.filter((r) => r.severity === s).length;
  const sections = LAYERS.flatMap(([layer, title]) => {
    const rows = RULES.filter((r) => r.layer === layer);
    if (rows.length === 0) return [];
    return [`## ${title}`, '', '| id | severity | keyword | the spec says | source | what idsync checks |', '|---|---|---|---|---|---|', ...rows.map(line), ''];
  });
  return [
    '# Conformance rules',
    '',
    '<!-- Generated from src/conformance/catalogue-entries.ts by `npm run docs:rules`: edit the catalogue, not this file. -->',
    '',
    'Every rule idsync checks — on the messages it sends and receives, in `idsync message check` and in',
    '`idsync conformance run` — with its stable id (what the message log, `details.rule` of a refusal and',
    'conformance reports name), the sentence of the spec it enforces, quoted, and where that sentence is.',
    '',
    'The severity is not chosen by idsync: it follows from the RFC 2119 keyword of the quote.',
    '**error**: MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT; **warning**: SHOULD, SHOULD NOT, RECOMMENDED;',
    "**advice**: no keyword (or MAY, OPTIONAL): idsync's own profile (docs/protocols.md), good practice",
    'and interop advice. Only an error fails a conformance case or `message check`; with',
    '`--profile strict` warnings and advice fail too. Rules marked *idsync refuses such a message* are',
    'body fields idsync\'s own agents cannot act without: they refuse such a message as their own policy,',
    'which is not a verdict on its sender. Rules marked *idsync takes such a message all the same* keep',
    'their verdict on the sender, but idsync\'s own agents act on the message: refusing it would stop a',
    'flow over a field with a plain default. `idsync rules --json` prints the same list.',
    '',
    `${RULES.length} rules: ${count('error')} errors, ${count('warning')} warnings, ${count('advice')} advice.`,
    '',
    ...sections,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(RULES_DOC, renderRulesDoc());
  console.log(`wrote ${RULES_DOC}`);
}
