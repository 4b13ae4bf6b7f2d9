import { Type, type Static } from '@sinclair/typebox';
import { OBJECT_ID_PATTERN } from '../ids.js';

export const ObjectId = Type.String({ pattern: OBJECT_ID_PATTERN, description: '24 lowercase hex characters' });

/** A display name: 1 to 200 characters with at least one that is not white space. */
export const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const IsoTime = Type.String({ format: 'date-time', description: 'ISO-8601 UTC, ending in Z' });

/** Most workspace routes take the workspace as `teamId` in the query string. */
export const TeamIdQuery = Type.Object({ teamId: Type.String({ minLength: 1 }) });

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    code: Type.String(),
    message: Type.String(),
    time: IsoTime,
  },
  { $id: 'ErrorBody' },
);
export type ErrorBody = Static<typeof ErrorBody>;

export const UserRef = Type.Object({
  id: ObjectId,
  name: Type.String(),
  surname: Type.String(),
  email: Type.String(),
});
export type UserRef = Static<typeof UserRef>;

export const PaginationMetadata = Type.Object({
  'Pagination-Count': Type.Integer(),
  'Pagination-Page': Type.Integer(),
  'Pagination-Limit': Type.Integer(),
});
export type PaginationMetadata = Static<typeof PaginationMetadata>;
