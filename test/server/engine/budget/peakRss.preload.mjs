// Preloaded into the bench child (NODE_OPTIONS --import): at exit, writes the process's peak resident set as the
// kernel counts it (VmHWM, kB) to $STALLSCOPE_PEAK_RSS_FILE, so a test reads the true peak, not a sample of it.
import { readFileSync, writeFileSync } from 'node:fs';

const file = process.env.STALLSCOPE_PEAK_RSS_FILE;
if (file)
  process.on('exit', () => {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    writeFileSync(file, m ? m[1] : '');
  });
