"""Accounts: users, their salted password hashes and their access groups."""
