// `--engine native|didcomm-node`: the envelope engine of a command (message pack/unpack, demo,
// wallet serve/accept, service). Without it the envelope layer's default applies (native).
import { Option } from 'commander';
import { ENVELOPE_ENGINES, type EnvelopeEngine } from '../didcomm/types.js';

export function engineOption(): Option {
  return new Option('--engine <engine>', 'DIDComm envelope engine (default native)').choices(ENVELOPE_ENGINES);
}

/** `{engine}` for an envelope context, or nothing when the option was not given. */
export function engineOf(opts: { engine?: EnvelopeEngine }): { engine?: EnvelopeEngine } {
  return opts.engine ? { engine: opts.engine } : {};
}
