// Package kernel renders reports, inventories and search results as HTML
// tables and SVG charts for GoNB notebooks. It is the only package that
// imports gonb.
package kernel
