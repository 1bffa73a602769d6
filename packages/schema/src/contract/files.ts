import { z } from 'zod';
import { contextRoutes } from '../routes.ts';
import { base64, fileRef, ok, timestamp } from './common.ts';
import { defineRoute } from './define.ts';

/** What `files.info` answers (and `upload`/`replace` return alongside the ref). */
export const fileInfoSchema = z.strictObject({
  ref: fileRef,
  id: z.string().min(1),
  name: z.string().min(1),
  contentType: z.string().min(1),
  size: z.int().min(0),
  /** Bumped by every `replace`; a delegated read grant pins it. */
  generation: z.int().min(1),
  createdAt: timestamp,
  updatedAt: timestamp,
});

const fileErrors = ['FILE_NOT_FOUND', 'PERMISSION_DENIED'] as const;

/** `files.upload({ data, name, contentType })`. */
export const filesUpload = defineRoute('filesUpload', contextRoutes.filesUpload, {
  summary: 'Store a new managed file.',
  request: z.strictObject({
    data: base64,
    name: z.string().min(1),
    contentType: z.string().min(1),
  }),
  response: z.strictObject({ file: fileInfoSchema }),
  errors: ['FILE_TOO_LARGE', 'AUTH_REQUIRED', 'STORAGE_UNAVAILABLE'],
});

/** `files.download(ref)`: the bytes and their metadata. */
export const filesDownload = defineRoute('filesDownload', contextRoutes.filesDownload, {
  summary: 'Read the bytes of a managed file.',
  request: z.strictObject({ ref: fileRef }),
  response: z.strictObject({ file: fileInfoSchema, data: base64 }),
  errors: [...fileErrors, 'FILE_INPUT_CHANGED'],
});

/** `files.replace(ref, { data, name })`: new content generation, same ref. */
export const filesReplace = defineRoute('filesReplace', contextRoutes.filesReplace, {
  summary: 'Replace the content (and optionally the name) of a managed file.',
  request: z.strictObject({
    ref: fileRef,
    data: base64,
    name: z.string().min(1).optional(),
    contentType: z.string().min(1).optional(),
  }),
  response: z.strictObject({ file: fileInfoSchema }),
  errors: [...fileErrors, 'FILE_TOO_LARGE', 'AUTH_REQUIRED', 'STORAGE_UNAVAILABLE'],
});

/** `files.remove(ref)`. */
export const filesRemove = defineRoute('filesRemove', contextRoutes.filesRemove, {
  summary: 'Delete a managed file.',
  request: z.strictObject({ ref: fileRef }),
  response: ok,
  errors: [...fileErrors, 'AUTH_REQUIRED'],
});

/** `files.info(idOrRef)`. */
export const filesInfo = defineRoute('filesInfo', contextRoutes.filesInfo, {
  summary: 'Read the metadata of a managed file by id or ref.',
  request: z.strictObject({ ref: fileRef }),
  response: z.strictObject({ file: fileInfoSchema }),
  errors: fileErrors,
});
