/** A generated image kept so its `url` can be downloaded. */
export interface StoredImage {
  bytes: Buffer;
  contentType: 'image/png' | 'image/jpeg';
}

/** The images served under `/files/<name>`, for `response_format: 'url'`. */
export interface ImageFileStore {
  /** Stores the image and returns its file name, e.g. `img-3.png`. */
  save(image: StoredImage): string;
  get(fileName: string): StoredImage | undefined;
  clear(): void;
}

export function createImageFileStore(): ImageFileStore {
  const files = new Map<string, StoredImage>();
  let nextNumber = 1;
  return {
    save(image) {
      const extension = image.contentType === 'image/png' ? 'png' : 'jpg';
      const fileName = `img-${nextNumber}.${extension}`;
      nextNumber += 1;
      files.set(fileName, image);
      return fileName;
    },
    get: (fileName) => files.get(fileName),
    clear() {
      files.clear();
    },
  };
}
