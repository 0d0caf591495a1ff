// `idsync demo` until the wallet demo exists: walks through what the foundation can do today —
// an ion wallet DID, its offline resolution, a did:peer counterparty, and an authcrypt message
// between them packed and unpacked — printing each step (with --json only a final JSON line).
import { createIonDid } from '../../did/ion.js';
import { createPeerDid } from '../../did/peer.js';
import { createResolver, documentResolver } from '../../did/resolver.js';
import { ionShortForm } from '../../did/ion-form.js';
import { pack, unpack } from '../../didcomm/envelope.js';
import { memorySecrets } from '../../didcomm/secrets.js';
import type { PlainMessage } from '../../didcomm/types.js';
import { IdsyncError } from '../../errors.js';
import type { Output } from '../output.js';

const BASIC_MESSAGE = 'https://didcomm.org/basicmessage/2.0/message';

export async function runFoundationDemo(out: Output): Promise<void> {
  const resolver = createResolver({});
  const resolve = documentResolver(resolver);

  out.say('1. Create the wallet DID (did:ion long form, offline)');
  const wallet = await createIonDid({});
  out.say(`   did:       ${shorten(wallet.did)} (${wallet.did.length} characters)`);
  out.say(`   short did: ${wallet.shortDid}`);

  out.say('2. Resolve it (the long form carries its own document: no network)');
  const resolution = await resolver.resolve(wallet.did);
  if (!resolution.didDocument) throw new IdsyncError('did_not_resolved', `the wallet DID did not resolve (${resolution.didResolutionMetadata.error})`);
  const keyIds = (resolution.didDocument.verificationMethod ?? []).map((vm) => '#' + vm.id.split('#')[1]);
  out.say(`   keys: ${keyIds.join(', ')}; keyAgreement: ${(resolution.didDocument.keyAgreement ?? []).length}`);

  out.say('3. Create the other party (did:peer:2 with a DIDComm endpoint)');
  const peer = await createPeerDid({ endpoint: 'https://issuer.example/didcomm' });
  out.say(`   did: ${shorten(peer.did)}`);

  out.say('4. Wallet → peer: pack a basic message with authcrypt (ECDH-1PU: the recipient learns who sent it)');
  const message: PlainMessage = {
    id: crypto.randomUUID(),
    type: BASIC_MESSAGE,
    from: wallet.did,
    to: [peer.did],
    created_time: Math.floor(Date.now() / 1000),
    body: { content: 'Hello from the wallet' },
  };
  const packed = await pack(message, { mode: 'authcrypt' }, { resolve, secrets: memorySecrets(wallet.secrets) });
  out.say(`   ${packed.mediaType}, ${packed.packed.length} bytes, to ${packed.toKids.map(shorten).join(', ')}`);

  out.say('5. Peer: unpack it with its own keys');
  const unpacked = await unpack(packed.packed, { resolve, secrets: memorySecrets(peer.secrets) });
  const m = unpacked.metadata;
  out.say(`   mode ${m.mode}, authenticated ${m.authenticated}, sender key ${shorten(ionShortForm(m.encryptedFromKid ?? ''))}`);
  out.say(`   body: ${JSON.stringify(unpacked.message.body)}`);

  out.result(
    {
      wallet: { did: wallet.did, shortDid: wallet.shortDid },
      peer: { did: peer.did },
      resolved: { keys: keyIds },
      packed: { mode: packed.mode, mediaType: packed.mediaType, bytes: packed.packed.length },
      unpacked: { message: unpacked.message, metadata: unpacked.metadata },
    },
    () => 'Done: DIDs, resolution and DIDComm v2 envelopes work. (The wallet and service demo comes later.)',
  );
}

function shorten(value: string): string {
  return value.length > 90 ? `${value.slice(0, 60)}…${value.slice(-20)}` : value;
}
