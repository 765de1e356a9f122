"""The examples in examples/, with Python clients and with headless Godot clients."""
