import { fromBase64, toBase64, toBytes } from './bytes.ts';
import type { RuntimeClient } from './transport.ts';
import type { FileInfo, FileRef, FilesClient } from './types.ts';

function ref(value: unknown): string {
  if (typeof value !== 'string' || value === '')
    throw new TypeError('A FileRef (from files.upload) is required');
  return value;
}

function info(file: Omit<FileInfo, 'ref'> & { ref: string }): FileInfo {
  return { ...file, ref: file.ref as FileRef };
}

/** `ctx.files`: managed files; bytes travel base64-encoded in the contract's JSON bodies. */
export function createFiles(client: RuntimeClient): FilesClient {
  return {
    async upload({ data, name, contentType }) {
      const body = { data: toBase64(toBytes(data, 'files.upload data')), name, contentType };
      const { file } = await client.call('filesUpload', {}, body);
      return file.ref as FileRef;
    },
    async download(fileRef) {
      const { file, data } = await client.call('filesDownload', {}, { ref: ref(fileRef) });
      return { ...info(file), data: fromBase64(data) };
    },
    async replace(fileRef, { data, name, contentType }) {
      const body = {
        ref: ref(fileRef),
        data: toBase64(toBytes(data, 'files.replace data')),
        ...(name === undefined ? {} : { name }),
        ...(contentType === undefined ? {} : { contentType }),
      };
      const { file } = await client.call('filesReplace', {}, body);
      return file.ref as FileRef;
    },
    async remove(fileRef) {
      await client.call('filesRemove', {}, { ref: ref(fileRef) });
    },
    async info(idOrRef) {
      const { file } = await client.call('filesInfo', {}, { ref: ref(idOrRef) });
      return info(file);
    },
  };
}
