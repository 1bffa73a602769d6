import { checkSearchOptions, type Declarations } from '@platform/schema/contract';
import type { RuntimeClient } from './transport.ts';
import type { DataClient, Row, SearchHit, Table } from './types.ts';

function tableName(name: unknown): string {
  if (typeof name !== 'string' || name === '')
    throw new TypeError('table name must be a non-empty string');
  return name;
}

/** `ctx.data`: table operations and named searches, each one contract route. */
export function createData(client: RuntimeClient, declared: Declarations): DataClient {
  return {
    table<T extends Row = Row>(name: string): Table<T> {
      const params = { table: tableName(name) };
      return {
        async list(options = {}) {
          const body = {
            ...(options.where === undefined ? {} : { where: options.where }),
            ...(options.limit === undefined ? {} : { limit: options.limit }),
            ...(options.select === undefined ? {} : { select: [...options.select] }),
          };
          const { rows } = await client.call('dataList', params, body);
          return rows as T[];
        },
        async getById(id, options = {}) {
          const body = {
            id,
            ...(options.select === undefined ? {} : { select: [...options.select] }),
          };
          const { row } = await client.call('dataGetById', params, body);
          return row as T | null;
        },
        async create(row) {
          const result = await client.call('dataCreate', params, { row });
          return result.row as T;
        },
        async updateById(id, patch) {
          const result = await client.call('dataUpdateById', params, { id, patch });
          return result.row as T;
        },
      };
    },
    async search(name, options) {
      client.requireFeature('search', 'data.search');
      // The same rules the broker enforces again (spec 2.5), so a bad option fails here, before
      // any request, with the code the broker would answer.
      const body = checkSearchOptions(name, declared.searches, options);
      const { hits } = await client.call('dataSearch', { name }, body);
      return { hits: hits as SearchHit<never>[] };
    },
  };
}
