#!/usr/bin/env node
// `npm create @platform/app [dir]` runs this file: it is `platform init [dir]` of the broker this
// package pins, so the new app is written by the one starter template and pins the versions
// released with that broker. The broker's entry checks the Node version before loading anything.
process.argv.splice(2, 0, 'init');
await import('@platform/broker/cli');
