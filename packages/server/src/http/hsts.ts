/** Strict-Transport-Security of every answer of a platform served over HTTPS (its API, dashboard and session proxy): a year. */
export const HSTS_VALUE = 'max-age=31536000';
