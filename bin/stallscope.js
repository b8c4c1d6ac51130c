#!/usr/bin/env node
// Entry point: registers tsx so the TypeScript sources run as they are, then hands over to the CLI.
import { register } from 'tsx/esm/api';
register();
const { main } = await import('../server/cli/main.ts');
const code = await main(process.argv.slice(2));
if (typeof code === 'number') process.exitCode = code;
