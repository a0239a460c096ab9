"""Helpers shared by tests: imported by test modules and conftest files, never the other way round.

A test module imports no other test module (tests/unit/test_test_imports.py holds it); fixtures stay
in conftest.py files, which import what they need from here."""
