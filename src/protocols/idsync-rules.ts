// The body rules of every idsync application protocol by full message type URI, for tools that
// check messages without registering handlers (the CLI, log inspection). Routers get the same
// rules through each protocol module's `rules` (router.use).
import type { RuleRegistry } from '../conformance/registry.js';
import type { MessageRule } from '../conformance/types.js';
import { COORDINATE_MEDIATION_2_PIURI, COORDINATE_MEDIATION_2_RULES, COORDINATE_MEDIATION_3_PIURI, COORDINATE_MEDIATION_3_RULES } from './coordinate-mediation.js';
import { DATA_PIPE_PIURI, DATA_PIPE_RULES } from './data-pipe.js';
import { ISSUE_CREDENTIAL_PIURI, ISSUE_CREDENTIAL_RULES } from './issue-credential.js';
import { MESSAGE_PICKUP_PIURI, MESSAGE_PICKUP_RULES } from './message-pickup.js';
import { PRESENT_PROOF_PIURI, PRESENT_PROOF_RULES } from './present-proof.js';
import { ROUTING_PIURI, ROUTING_RULES } from './routing.js';

const BY_PROTOCOL: Array<[string, Record<string, MessageRule[]>]> = [
  [DATA_PIPE_PIURI, DATA_PIPE_RULES],
  [PRESENT_PROOF_PIURI, PRESENT_PROOF_RULES],
  [ISSUE_CREDENTIAL_PIURI, ISSUE_CREDENTIAL_RULES],
  [MESSAGE_PICKUP_PIURI, MESSAGE_PICKUP_RULES],
  [COORDINATE_MEDIATION_2_PIURI, COORDINATE_MEDIATION_2_RULES],
  [COORDINATE_MEDIATION_3_PIURI, COORDINATE_MEDIATION_3_RULES],
  [ROUTING_PIURI, ROUTING_RULES],
];

/** `https://didcomm.org/issue-credential/3.0/offer-credential` → its body rules, for all our protocols. */
export function idsyncProtocolRules(): Record<string, MessageRule[]> {
  const out: Record<string, MessageRule[]> = {};
  for (const [piuri, rules] of BY_PROTOCOL) for (const [name, list] of Object.entries(rules)) out[`${piuri}/${name}`] = list;
  return out;
}

/** Adds every idsync protocol's body rules to `registry` (conformance/registry.ts). */
export function addIdsyncRules(registry: RuleRegistry): RuleRegistry {
  for (const [type, rules] of Object.entries(idsyncProtocolRules())) registry.addProtocolRules(type, ...rules);
  return registry;
}
