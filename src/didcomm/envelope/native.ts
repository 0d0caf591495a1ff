// The native engine: DIDComm v2 envelopes over node:crypto (jwe/, jws/), one NativeCall per
// operation for DID documents and secrets.
import type { Engine } from './engine.js';
import { wrapNative } from './forward.js';
import { signFromPrior } from './from-prior.js';
import { NativeCall } from './native-call.js';
import { nativePack } from './native-pack.js';
import { nativeUnpack } from './native-unpack.js';

export const nativeEngine: Engine = {
  pack: (message, plan, ctx) => nativePack(message, plan, new NativeCall(ctx)),
  unpack: (packed, ctx, o) => nativeUnpack(packed, new NativeCall(ctx), o),
  wrapInForward: (packed, o, ctx) => wrapNative(packed, o, new NativeCall(ctx)),
  packFromPrior: (claims, issuerKid, ctx) => signFromPrior(claims, issuerKid, new NativeCall(ctx)),
};
