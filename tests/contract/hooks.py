"""Schemathesis hooks: strategies for the GraphQL scalars it does not know."""

import schemathesis
from hypothesis import strategies as st
from schemathesis.graphql import nodes

# Decimals travel as strings (or numbers) such as "95.00"; the fuzzer sends both shapes.
schemathesis.graphql.scalar(
    "Decimal",
    st.one_of(
        st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)
        .map(str)
        .map(nodes.String),
        st.integers(min_value=-1000, max_value=1000).map(nodes.Int),
    ),
)
