/** The image formats parley accepts and produces, told apart by their first bytes, never by a name. */
export type ImageMimeType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

const extensions: Record<ImageMimeType, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

/** The image type of `bytes` by their signature, or undefined when they are not one of ours. */
export function detectImageType(bytes: Uint8Array): ImageMimeType | undefined {
  const startsWith = (signature: readonly number[], offset = 0) =>
    bytes.length >= offset + signature.length &&
    signature.every((byte, index) => bytes[offset + index] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (startsWith([0xff, 0xd8, 0xff])) return 'image/jpeg';
  if (startsWith([0x47, 0x49, 0x46, 0x38])) return 'image/gif';
  // RIFF....WEBP
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return 'image/webp';
  return undefined;
}

export function fileExtensionOf(mimeType: ImageMimeType): string {
  return extensions[mimeType];
}

/** A `data:` URI, the form the gateway takes images in. */
export function toDataUri({ bytes, mimeType }: { bytes: Uint8Array; mimeType: ImageMimeType }): string {
  return `data:${mimeType};base64,${Buffer.from(bytes).toString('base64')}`;
}

/** The bytes of a base64 `data:` URI (what `toDataUri` made). */
export function bytesOfDataUri(uri: string): Uint8Array {
  return new Uint8Array(Buffer.from(uri.slice(uri.indexOf(',') + 1), 'base64'));
}
