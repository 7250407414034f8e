import type { CliIO } from '@roster/cli';

/** A CliIO that records what is written to stdout and stderr, with no environment and no signals. */
export function fakeIO(): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    stdout: { write: (text: string) => void (io.out += text) },
    stderr: { write: (text: string) => void (io.err += text) },
    env: {},
    onSignal: () => () => {},
  };
  return io;
}
