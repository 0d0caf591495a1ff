// The rule registry: plaintext and sender rules for every message, body rules by message
// type. Later protocols (issue-credential, present-proof, ...) add their body rules here,
// and the router checks every message it sees against one registry.
import { parseMessageType, withBody } from '../didcomm/message.js';
import type { PlainMessage, UnpackMetadata } from '../didcomm/types.js';
import { checkEnvelope, envelopeNotes, senderRules } from './envelope.js';
import { plaintextRules, isPlainObject } from './plaintext.js';
import { protocolRules } from './protocol-rules.js';
import { fail, type ConformanceResult, type MessageRule, type RuleContext } from './types.js';
import { setBounded } from '../bounded.js';

export interface RuleRegistry {
  /** Body rules for one message type; matched across minor versions (`2.0` rules check `2.1`). */
  addProtocolRules(messageType: string, ...rules: MessageRule[]): void;
  /** A rule run on every message. */
  addMessageRule(rule: MessageRule): void;
  /** The body rules that apply to `messageType`. */
  rulesFor(messageType: string): MessageRule[];
  /** Message types that have body rules. */
  types(): string[];
  /** Plaintext, sender and body rules on one message. Never throws. */
  check(message: unknown, context?: RuleContext): ConformanceResult[];
}

function keyOf(type: string): string {
  return parseMessageType(type)?.majorKey ?? type;
}

export interface RuleRegistryOptions {
  /** Include the built-in plaintext, sender and DIDComm protocol rules (default true). */
  builtins?: boolean;
}

export function createRuleRegistry(options: RuleRegistryOptions = {}): RuleRegistry {
  const byType = new Map<string, { type: string; rules: MessageRule[] }>();
  const general: MessageRule[] = [];
  // The rules for a message type as written in messages (a handful per protocol), so that every
  // message does not parse its type URI again; emptied when rules are added. Bounded: types
  // come from outside.
  const byTypeString = new Map<string, MessageRule[]>();
  const BY_TYPE_STRING_MAX = 256;
  const NO_RULES: MessageRule[] = [];

  const registry: RuleRegistry = {
    addProtocolRules(messageType, ...rules) {
      const key = keyOf(messageType);
      const entry = byType.get(key) ?? { type: messageType, rules: [] };
      for (const r of rules) if (!entry.rules.includes(r)) entry.rules.push(r);
      byType.set(key, entry);
      byTypeString.clear();
    },
    addMessageRule(rule) {
      if (!general.includes(rule)) general.push(rule);
    },
    rulesFor(messageType) {
      const known = byTypeString.get(messageType);
      if (known) return known;
      const rules = byType.get(keyOf(messageType))?.rules;
      // Only types that have rules: any sender can make up types (of any length) by the thousand.
      if (!rules) return NO_RULES;
      setBounded(byTypeString, messageType, rules, BY_TYPE_STRING_MAX);
      return rules;
    },
    types() {
      return [...byType.values()].map((e) => e.type);
    },
    check(message, context = {}) {
      if (!isPlainObject(message)) return [fail('plaintext', 'plaintext.json-object', 'a plaintext message is a JSON object')];
      const m = message as PlainMessage;
      const rules = [...general, ...(typeof m.type === 'string' ? registry.rulesFor(m.type) : [])];
      // The general rules judge the message as it came (plaintext.body-present among them); a
      // protocol's body rules read it as its protocol does, an absent body as an empty one.
      const read = withBody(m);
      const out: ConformanceResult[] = [];
      for (let i = 0; i < rules.length; i++) {
        const rule = rules[i]!;
        try {
          out.push(...rule(i < general.length ? m : read, context));
        } catch (err) {
          // A broken rule is reported, not thrown: conformance checking never stops a flow.
          out.push(fail('protocol', 'conformance.rule-crashed', `a rule threw: ${(err as Error)?.message ?? String(err)}`));
        }
      }
      return out;
    },
  };

  if (options.builtins !== false) {
    for (const rule of plaintextRules) registry.addMessageRule(rule);
    registry.addMessageRule(senderRules);
    registry.addMessageRule(envelopeNotes);
    for (const [type, rules] of Object.entries(protocolRules)) registry.addProtocolRules(type, ...rules);
  }
  return registry;
}

/**
 * Checks one message: plaintext headers, sender authentication (with unpack metadata),
 * the outer envelope (when `packed` is given) and the body rules of its type.
 */
export function checkMessage(
  message: unknown,
  metadata?: UnpackMetadata,
  options: { packed?: string; registry?: RuleRegistry } = {},
): ConformanceResult[] {
  const registry = options.registry ?? createRuleRegistry();
  return [...(options.packed !== undefined ? checkEnvelope(options.packed) : []), ...registry.check(message, { metadata, packed: options.packed })];
}
