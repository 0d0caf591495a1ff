// `idsync rules [--json]`: the conformance rule catalogue (src/conformance/catalogue.ts), the
// rules `message check` and `conformance run` judge by.
import type { Command } from 'commander';
import { RULES, ruleLink, rulesDocument } from '../../conformance/catalogue.js';
import type { CommandDeps } from './did.js';

export function registerRulesCommand(program: Command, deps: CommandDeps): void {
  program
    .command('rules')
    .description('print the conformance rule catalogue: id, layer, severity, spec section, link and meaning')
    .option('--json', 'print one JSON document {"rules": [{id, layer, severity, spec, section, url, text}]}')
    .action((opts: { json?: boolean }) => {
      deps.output(Boolean(opts.json)).result(rulesDocument(), () =>
        [
          `${RULES.length} rules (error: a MUST of the spec; warning: a SHOULD)`,
          '',
          ...RULES.map((r) => `${r.id}  [${r.layer}, ${r.severity}]  ${r.spec} ${r.section}\n    ${r.text}\n    ${ruleLink(r.url)}`),
        ].join('\n'),
      );
    });
}
