"""Conversations: verbatim messages in order, windowed into chunks for recall."""
