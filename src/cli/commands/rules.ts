// `idsync rules [--json]`: the conformance rule catalogue (src/conformance/catalogue.ts), the
// rules `message check` and `conformance run` judge by, each with the sentence of the spec it
// enforces and the severity that sentence's RFC 2119 keyword gives.
import type { Command } from 'commander';
import { RULES, ruleLink, rulesDocument } from '../../conformance/catalogue.js';
import type { CommandDeps } from './did.js';

export function registerRulesCommand(program: Command, deps: CommandDeps): void {
  program
    .command('rules')
    .description('print the conformance rule catalogue: id, layer, severity, keyword, the quoted spec sentence, spec, version, section and link')
    .option('--json', 'print one JSON document {"rules": [{id, layer, severity, keyword, quote, spec, version, section, url, text}]}')
    .action((opts: { json?: boolean }) => {
      deps.output(Boolean(opts.json)).result(rulesDocument(), () =>
        [
          `${RULES.length} rules (severity from the quoted keyword: MUST → error, SHOULD → warning, none → advice)`,
          '',
          ...RULES.map((r) =>
            [
              `${r.id}  [${r.layer}, ${r.severity}${r.keyword ? `, ${r.keyword}` : ''}]  ${r.spec} ${r.version}, ${r.section}`,
              `    “${r.quote}”`,
              `    ${r.text}${r.refuses ? ' (idsync refuses such a message)' : ''}${r.tolerated ? ' (idsync takes such a message all the same)' : ''}`,
              `    ${ruleLink(r.url)}`,
            ].join('\n'),
          ),
        ].join('\n'),
      );
    });
}
