// Artillery loads engines with require('artillery-engine-<name>'): this CommonJS shim is that
// module for `engine: idsync`. The engine itself is ESM (dist/fleet/artillery-engine.js); it is
// imported on the first virtual user (Artillery's constructor must return at once).
// Make it findable with NODE_PATH=<idsync package folder> (README "Load testing").
'use strict';
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const entry = pathToFileURL(path.join(__dirname, '..', 'dist', 'fleet', 'artillery-engine.js')).href;

class IdsyncEngine {
  constructor(script, ee, helpers) {
    this.impl = import(entry).then((m) => new m.IdsyncArtilleryEngine(script, ee, helpers));
    // Reported on the first virtual user, not as an unhandled rejection.
    this.impl.catch(() => undefined);
  }

  createScenario(spec, ee) {
    const scenario = this.impl.then((engine) => engine.createScenario(spec, ee));
    scenario.catch(() => undefined);
    return (context, callback) => {
      scenario.then(
        (vu) => vu(context, callback),
        (err) => {
          ee.emit('error', (err && err.code) || 'engine_load_failed');
          callback(err, context);
        },
      );
    };
  }
}

module.exports = IdsyncEngine;
