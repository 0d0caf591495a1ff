// Writes docs/rules.md from the rule catalogue (src/conformance/catalogue.ts): `npm run docs:rules`.
// test/conformance/catalogue.test.ts fails when the file is not what this script would write.
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RULES, ruleAnchor, type RuleLayer } from '../src/conformance/catalogue.js';

export const RULES_DOC = fileURLToPath(new URL('../docs/rules.md', import.meta.url));

const LAYERS: Array<[RuleLayer, string]> = [
  ['envelope', 'Envelope (JWE, JWS, sender authentication, from_prior)'],
  ['plaintext', 'Plaintext headers'],
  ['oob', 'Out-of-band invitation URLs'],
  ['protocol', 'Protocols (DIDComm\'s own, then issue-credential, present-proof, Data Pipe, Message Pickup)'],
  ['credential', 'Credentials'],
  ['transport', 'Transport'],
];

const cell = (text: string) => text.replace(/\|/g, '\\|');

export function renderRulesDoc(): string {
  const sections = LAYERS.flatMap(([layer, title]) => {
    const rows = RULES.filter((r) => r.layer === layer);
    if (rows.length === 0) return [];
    return [
      `## ${title}`,
      '',
      '| id | severity | source | rule |',
      '|---|---|---|---|',
      ...rows.map((r) => `| <a id="${ruleAnchor(r.id)}"></a>\`${r.id}\` | ${r.severity} | [${cell(`${r.spec} ${r.section}`)}](${r.url}) | ${cell(r.text)} |`),
      '',
    ];
  });
  return [
    '# Conformance rules',
    '',
    '<!-- Generated from src/conformance/catalogue-entries.ts by `npm run docs:rules`: edit the catalogue, not this file. -->',
    '',
    'Every rule idsync checks — on the messages it sends and receives, in `idsync message check` and in',
    '`idsync conformance run` — with its stable id (what the message log, `details.rule` of a refusal and',
    'conformance reports name), its severity (**error**: a MUST of the spec is broken; **warning**: a',
    'SHOULD, or a form the spec allows that is worth noting), and where it comes from. `idsync rules --json`',
    'prints the same list.',
    '',
    `${RULES.length} rules.`,
    '',
    ...sections,
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(RULES_DOC, renderRulesDoc());
  console.log(`wrote ${RULES_DOC}`);
}
