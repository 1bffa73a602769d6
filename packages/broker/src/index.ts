/**
 * `@platform/broker`: the local broker and the `platform` CLI.
 *
 * @packageDocumentation
 */
export { type CliIO, type Command, exitCodes } from './cli/io.ts';
export { commands, main } from './cli/main.ts';
export { nodeFileHost } from './cli/node-host.ts';
export { type ValidateReport, validateApp, validateCommand } from './cli/validate.ts';
