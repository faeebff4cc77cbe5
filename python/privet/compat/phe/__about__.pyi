__title__: str
__summary__: str
__uri__: str
__version__: str
