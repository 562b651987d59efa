// Preloaded (`node --require`) by test/tokens/without-tokenizer.test.ts: the process then
// runs as if the optional package gpt-tokenizer were not installed.
const Module = require('node:module');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === 'gpt-tokenizer' || request.startsWith('gpt-tokenizer/')) {
    const e = new Error(`Cannot find module '${request}'`);
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  }
  return resolve.call(this, request, ...rest);
};
