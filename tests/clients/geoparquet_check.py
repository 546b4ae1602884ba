"""Reads a GeoParquet export of entities with pyarrow, as a notebook would: the row count, the
GeoParquet 1.1 metadata (WKB geometry, the bbox covering) and the nested sources column.
Usage: geoparquet_check.py FILE EXPECTED_ROWS (run by tests/clients/gdal.sh)."""

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq


def main() -> None:
    path, expected = sys.argv[1], int(sys.argv[2])
    table = pq.read_table(path)
    assert table.num_rows == expected, f"{table.num_rows} rows, expected {expected}"

    geo = json.loads(table.schema.metadata[b"geo"])
    assert geo["version"] == "1.1.0", geo
    column = geo["columns"][geo["primary_column"]]
    assert column["encoding"] == "WKB", column
    assert column["covering"]["bbox"]["xmin"] == ["bbox", "xmin"], column

    sources = table.schema.field("sources").type
    assert pa.types.is_list(sources) and pa.types.is_struct(sources.value_type), sources
    for name in ("field", "space_time_entry_id", "agent_id", "score_confidence"):
        assert sources.value_type.get_field_index(name) >= 0, f"no {name} in {sources}"
    assert pa.types.is_float64(table.schema.field("score_confidence").type)

    rows = table.to_pylist()
    for row in rows:
        fields = {source["field"] for source in row["sources"]}
        assert "display_name" in fields, f"{row['display_name']}: sources {fields}"
        assert row["bbox"]["xmin"] == row["location_lng"], row["bbox"]
    print(f"geoparquet: pyarrow {pa.__version__} read {len(rows)} rows with their sources")


if __name__ == "__main__":
    main()
