import { parsePrismaSchema } from './prisma-drift';

const SCHEMA = `
generator client {
  provider = "prisma-client"
  output   = "../src/generated/prisma" // not a comment inside "strings // like this"
}

datasource db {
  provider = "postgresql"
  schemas  = ["shop"]
}

/// Docs are ignored.
enum Colour {
  RED
  GREEN
  @@map("colour")
  @@schema("shop")
}

model Owner {
  id     String  @id @db.Uuid
  email  String  @unique @map("email_address") @db.VarChar(200)
  pets   Pet[]
  @@map("owner")
  @@schema("shop")
}

model Pet {
  ownerId   String    @map("owner_id") @db.Uuid
  number    Int
  name      String?   @default("Rex // not a comment")
  colour    Colour    @default(RED)
  tags      String[]
  price     Decimal   @db.Decimal(10, 2)
  bornAt    DateTime  @default(now()) @map("born_at") @db.Timestamptz(3)
  seenAt    DateTime? @map("seen_at")
  legacy    Unsupported("tsvector")?
  hidden    String    @ignore
  owner     Owner     @relation(fields: [ownerId], references: [id], onDelete: Cascade)

  @@id([ownerId, number])
  @@unique([ownerId, name(sort: Desc)])
  @@index([colour])
  @@map("pet")
  @@schema("shop")
}

model Skipped {
  id Int @id
  @@ignore
}
`;

describe('parsePrismaSchema', () => {
  const model = parsePrismaSchema(SCHEMA);
  const owner = model.tables.find((t) => t.model === 'Owner')!;
  const pet = model.tables.find((t) => t.model === 'Pet')!;

  it('reads models as tables with their @@map and @@schema, leaving out @@ignore', () => {
    expect(model.tables.map((t) => [t.model, t.table, t.schema])).toEqual([
      ['Owner', 'owner', 'shop'],
      ['Pet', 'pet', 'shop'],
    ]);
    expect(model.enums.get('Colour')).toBe('colour');
  });

  it('reads scalar fields as columns, skipping relation and ignored fields', () => {
    expect(owner.columns.map((c) => c.column)).toEqual(['id', 'email_address']);
    expect(pet.columns.map((c) => c.column)).toEqual(['owner_id', 'number', 'name', 'colour', 'tags', 'price', 'born_at', 'seen_at', 'legacy']);
  });

  it('reads types, native types, optionality, lists, defaults and enums', () => {
    const col = (name: string) => pet.columns.find((c) => c.column === name)!;
    expect(col('name')).toMatchObject({ type: 'String', optional: true, default: '"Rex // not a comment"' });
    expect(col('colour')).toMatchObject({ type: 'Colour', enumDbName: 'colour', default: 'RED' });
    expect(col('tags')).toMatchObject({ list: true, optional: false });
    expect(col('price').nativeType).toEqual({ name: 'Decimal', args: ['10', '2'] });
    expect(col('born_at')).toMatchObject({ nativeType: { name: 'Timestamptz', args: ['3'] }, default: 'now()', optional: false });
    expect(col('seen_at')).toMatchObject({ optional: true });
    expect(col('seen_at').nativeType).toBeUndefined();
    expect(col('legacy')).toMatchObject({ type: 'Unsupported("tsvector")', optional: true });
    expect(owner.columns[1]).toMatchObject({ field: 'email', nativeType: { name: 'VarChar', args: ['200'] } });
  });

  it('reads keys, uniques and relations in column names', () => {
    expect(owner.primaryKey).toEqual(['id']);
    expect(owner.uniques).toEqual([['email_address']]);
    expect(pet.primaryKey).toEqual(['owner_id', 'number']);
    expect(pet.uniques).toEqual([['owner_id', 'name']]);
    expect(pet.foreignKeys).toEqual([{ columns: ['owner_id'], referencedTable: 'owner', referencedColumns: ['id'] }]);
  });
});
