/** The largest array file an array job reads (bytes): checked at submission and read no further when staged. */
export const MAX_ARRAY_FILE_BYTES = 16 * 1024 * 1024;
