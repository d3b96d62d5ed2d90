/**
 * File results that lie (spec §4.5; ANDROID-FACTS §5). The honest shape is a fresh read-only file
 * whose size and lowercase SHA-256 are declared, the provider closing its own fd copy once the
 * reply is sent. A FileLie changes one or more of: the declared size (wrong, or far below the real
 * content), the digest (of other bytes, or uppercase), the fd (writable; a pipe whose writer holds
 * it open forever after the content, so EOF never comes; a reliable pipe whose writer thread
 * crashes half-way, killing the provider process — the reader sees EOF, then checkError() reports
 * the dead writer).
 */

import { caches } from '../../base/caches.ts';
import type { JsonObject } from '../../base/json.ts';
import { sha256Hex } from '../../protocol/index.ts';
import type { AppContext } from '../../sim/app/context.ts';
import type { ParcelFileDescriptor } from '../../sim/fd/fd.ts';
import type { FileLie } from './behaviour.ts';
import { jsonDocumentOfSize } from './payloads.ts';

export interface FileReply {
  readonly data: JsonObject;
  readonly fd: ParcelFileDescriptor;
}

/**
 * Builds the file result `lie` describes. Write ends that must never close are pushed on
 * `heldOpen` (the provider keeps them for its whole life).
 */
export function lyingFileResult(
  context: AppContext,
  lie: FileLie,
  heldOpen: ParcelFileDescriptor[],
): FileReply {
  const { bytes, digest } = lyingDocument(lie);
  const sha256 =
    lie.sha256 === 'correct'
      ? digest
      : lie.sha256 === 'uppercase'
        ? digest.toUpperCase()
        : sha256Hex(`not the content: ${digest}`);
  const data: JsonObject = {
    kind: 'file',
    media_type: 'application/json',
    size_bytes: lie.declaredSizeBytes ?? bytes.length,
    sha256,
  };
  return { data, fd: openResultFd(context, lie.fd, bytes, heldOpen) };
}

/**
 * A lie's document and its SHA-256: a pure function of its size and content, built once per process
 * (a few sizes up to 4 MiB; building and hashing them was ~8% of the hostile property's CPU). Each
 * call gets its own copy of the bytes, as before.
 */
const documents = caches.memo<string, { readonly bytes: Uint8Array; readonly digest: string }>(
  'providers/hostile/files: lying file documents and their SHA-256',
  16,
);

function lyingDocument(lie: FileLie): { bytes: Uint8Array; digest: string } {
  const made = documents.get(`${lie.contentBytes} ${lie.content}`, () => {
    const bytes = jsonDocumentOfSize(lie.contentBytes, lie.content);
    return { bytes, digest: sha256Hex(bytes) };
  });
  return { bytes: made.bytes.slice(), digest: made.digest };
}

function openResultFd(
  context: AppContext,
  kind: FileLie['fd'],
  bytes: Uint8Array,
  heldOpen: ParcelFileDescriptor[],
): ParcelFileDescriptor {
  switch (kind) {
    case 'read_only':
    case 'writable': {
      const path = `hostile-results/${context.seededUuid()}.json`;
      context.writeFile(path, bytes);
      const fd = context.openFile(path, kind === 'read_only' ? 'r' : 'rw');
      closeAfterReply(context, fd);
      return fd;
    }
    case 'pipe_never_eof': {
      const [read, write] = context.createPipe();
      heldOpen.push(write);
      context.spawn('hostile-pipe-writer', async () => write.write(bytes), { daemon: true });
      closeAfterReply(context, read);
      return read;
    }
    case 'pipe_writer_dies': {
      const [read, write] = context.createReliablePipe();
      context.spawn(
        'hostile-dying-writer',
        async () => {
          await write.write(bytes.subarray(0, Math.floor(bytes.length / 2)));
          throw new Error('hostile writer crashed half-way through the result');
        },
        { daemon: true },
      );
      closeAfterReply(context, read);
      return read;
    }
  }
}

/** The reply is parcelled after call() returns: close our copy on a later step, as the SDK does. */
function closeAfterReply(context: AppContext, fd: ParcelFileDescriptor): void {
  context.spawn('hostile-close-result-fd', async () => {
    await context.yield();
    fd.close();
  });
}
